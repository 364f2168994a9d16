"""Decision trees (CIML ch. 1, CART) for classification and regression."""

# registry name -> (module in this package, class)
REGISTRY = {
    "decision_tree": ("decision_tree", "DecisionTree"),
}
