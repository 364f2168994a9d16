"""Reductions to binary classification (CIML ch. 6): multiclass, imbalanced data and ranking.

Each takes its base learner as a registry name plus a params dict (``estimator``,
``estimator_params``), so configs and saved models stay JSON.
"""

# registry name -> (module in this package, class)
REGISTRY = {
    "one_vs_all": ("multiclass", "OneVsAll"),
    "all_vs_all": ("multiclass", "AllVsAll"),
    "tree_reduction": ("multiclass", "TreeReduction"),
    "imbalanced": ("imbalanced", "ImbalancedClassifier"),
    "pairwise_ranking": ("ranking", "PairwiseRanking"),
    "bradley_terry": ("bradley_terry", "BradleyTerry"),  # pairwise preferences (RLHF reward model)
}
