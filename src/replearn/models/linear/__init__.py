"""linear models."""
