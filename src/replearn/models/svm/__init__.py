"""Support vector machines: kernel SVM by SMO, linear SVM by Pegasos or dual coordinate descent."""

# registry name -> (module in this package, class)
REGISTRY = {
    "svm": ("svm", "SVM"),
    "linear_svm": ("linear_svm", "LinearSVM"),
}
