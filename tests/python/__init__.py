"""Tests of zl's Python plugins and sample corpus (a package, so that its conftest never
clashes with tests/e2e/conftest.py when both folders run in one session)."""
