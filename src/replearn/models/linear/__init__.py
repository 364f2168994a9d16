"""Linear models (CS229 notes ch. 1-3 and 9, CIML ch. 7 and 14, EPFL regression/classification).

Least squares and its solvers, locally weighted regression, ridge, the lasso, logistic and softmax
regression, GLMs over exponential families, CIML's loss + regularizer linear classifier, least absolute
deviations by subgradient descent (EPFL's MAE), Bayesian linear regression (CS229 §9.4) and supervised
FastText (EPFL's factorized bag-of-words classifier).
"""

# registry name -> (module in this package, class)
REGISTRY = {
    "linear_regression": ("least_squares", "LinearRegression"),
    "lwr": ("lwr", "LocallyWeightedRegression"),
    "ridge": ("ridge", "Ridge"),
    "lasso": ("lasso", "Lasso"),
    "logistic_regression": ("logistic", "LogisticRegression"),
    "softmax_regression": ("softmax", "SoftmaxRegression"),
    "glm": ("glm", "GeneralizedLinearModel"),
    "linear_classifier": ("linear_classifier", "LinearClassifier"),
    "mae_regression": ("mae", "MAERegression"),  # least absolute deviations by subgradient descent (EPFL)
    "bayesian_linear_regression": ("bayesian", "BayesianLinearRegression"),  # CS229 §9.4 posterior, predictive
    "fasttext": ("fasttext", "FastText"),  # EPFL text representations: the rank-K classifier W Z^T of bags of words
}
