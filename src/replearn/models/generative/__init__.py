"""Generative classifiers: Gaussian discriminant analysis (CS229 notes §4.1)."""

# registry name -> (module in this package, class)
REGISTRY = {
    "gda": ("gda", "GaussianDiscriminantAnalysis"),
}
