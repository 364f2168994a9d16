"""Linear models (CS229 notes ch. 1-3 and 9, CIML ch. 7 and 14, EPFL regression/classification).

Least squares and its solvers, locally weighted regression, ridge, the lasso, logistic and softmax
regression, GLMs over exponential families, and CIML's loss + regularizer linear classifier.
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
}
