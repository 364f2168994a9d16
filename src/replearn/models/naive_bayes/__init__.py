"""Naive Bayes classifiers (CS229 notes §4.2; CIML §9.3-9.5)."""

# registry name -> (module in this package, class)
REGISTRY = {
    "gaussian_naive_bayes": ("gaussian", "GaussianNaiveBayes"),
    "naive_bayes": ("event_models", "NaiveBayes"),
}
