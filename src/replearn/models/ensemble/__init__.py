"""Ensembles (CIML ch. 13; CS229 lecture summaries §7.8): voting, bagging, random forests, AdaBoost."""

# registry name -> (module in this package, class)
REGISTRY = {
    "voting": ("voting", "Voting"),
    "bagging": ("bagging", "Bagging"),
    "random_forest": ("random_forest", "RandomForest"),
    "adaboost": ("adaboost", "AdaBoost"),
    "random_structure_forest": ("random_structure_forest", "RandomStructureForest"),  # CIML Alg. 33
}
