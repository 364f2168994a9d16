"""perceptron models."""

# registry name -> (module in this package, class)
REGISTRY: dict[str, tuple[str, str]] = {}
