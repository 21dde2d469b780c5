"""The test suite is a package, so pytest puts the repository root (not tests/) on sys.path and
``training``, ``core`` and the other top-level packages are never shadowed by a test folder."""
