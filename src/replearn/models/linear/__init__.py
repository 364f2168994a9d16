"""Linear models: least squares and its solvers, ridge, logistic regression (CS229 notes ch. 1-3)."""

# registry name -> (module in this package, class)
REGISTRY = {
    "linear_regression": ("least_squares", "LinearRegression"),
    "ridge": ("ridge", "Ridge"),
    "logistic_regression": ("logistic", "LogisticRegression"),
}
