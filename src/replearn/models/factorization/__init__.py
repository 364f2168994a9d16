"""Matrix factorization for ratings with missing entries, by ALS and SGD (EPFL notes)."""

# registry name -> (module in this package, class)
REGISTRY: dict[str, tuple[str, str]] = {
    "matrix_factorization": ("matrix_factorization", "MatrixFactorization"),
}
