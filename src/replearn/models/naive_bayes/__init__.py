"""Naive Bayes classifiers (CS229 notes §4.2)."""

# registry name -> (module in this package, class)
REGISTRY = {
    "gaussian_naive_bayes": ("gaussian", "GaussianNaiveBayes"),
}
