"""Kernel machines: kernel ridge regression, the kernel perceptron and kernelized LMS."""

# registry name -> (module in this package, class)
REGISTRY = {
    "kernel_ridge": ("kernel_ridge", "KernelRidge"),
    "kernel_perceptron": ("kernel_perceptron", "KernelPerceptron"),
    "kernel_lms": ("kernel_lms", "KernelLMS"),
    "rbf_network": ("rbf_network", "RBFNetwork"),  # CIML §10.6
}
