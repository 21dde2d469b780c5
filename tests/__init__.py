"""The test suite is a package: for a test folder that is a package too (tests/training, tests/models,
…), pytest puts the repository root on sys.path rather than tests/, so tests/training no longer shadows
the repository's ``training``. Folders without an ``__init__.py`` (tests/hub, tests/brains, tests/core)
are still put on sys.path themselves: none may hold a folder named like a top-level package."""
