"""Mixture models fitted by EM (CS229 notes ch. 11, CIML ch. 16): the shared EM loop (``em``),
Gaussian mixtures and CIML §16.1's exam-grading model (``grading``, not a pipeline model)."""

# registry name -> (module in this package, class)
REGISTRY: dict[str, tuple[str, str]] = {
    "gmm": ("gaussian_mixture", "GaussianMixture"),
}
