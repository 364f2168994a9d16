"""naive_bayes models."""
