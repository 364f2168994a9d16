"""Decomposition: PCA (CS229 notes ch. 12, CIML §15.2, EPFL SVD/PCA), kernel PCA, factor analysis
(EM) and ICA (CS229 notes ch. 13). ``kernels`` holds the kernel functions the kernelized
unsupervised methods share."""

# registry name -> (module in this package, class)
REGISTRY: dict[str, tuple[str, str]] = {
    "pca": ("pca", "PCA"),
    "kernel_pca": ("kernel_pca", "KernelPCA"),
    "factor_analysis": ("factor_analysis", "FactorAnalysis"),
    "ica": ("ica", "ICA"),
}
