"""neighbors models."""
