"""Clustering: k-means (CS229 notes ch. 10, CIML §3.4 and §15.1) and kernel k-means (CIML §11.3)."""

# registry name -> (module in this package, class)
REGISTRY: dict[str, tuple[str, str]] = {
    "kmeans": ("kmeans", "KMeans"),
    "kernel_kmeans": ("kernel_kmeans", "KernelKMeans"),
}
