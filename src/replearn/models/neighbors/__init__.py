"""Nearest-neighbour methods (CIML ch. 3)."""

# registry name -> (module in this package, class)
REGISTRY = {
    "knn": ("knn", "KNearestNeighbors"),
}
