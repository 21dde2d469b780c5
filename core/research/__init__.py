"""Deep research: clarify → outline (user-editable) → parallel per-point retrieval → cited review.

:mod:`core.research.types` holds the value types the research events carry (Pydantic only, so the app
can import them before first paint).
"""
