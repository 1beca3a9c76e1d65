"""The research tests (run by CI beside the product tests)."""
