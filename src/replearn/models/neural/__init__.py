"""Neural networks in numpy: layers with explicit backward passes, an MLP and a small CNN.

Modules: ``layers`` (Dense, Maxout, Dropout, Flatten, Reshape), ``activations``, ``losses`` (fused
output losses), ``init`` (Glorot/He), ``conv`` (im2col Conv2D, max/avg pooling), ``normalization``
(batch and layer normalization), ``network`` (the shared training loop), ``mlp``, ``cnn``,
``gradcheck`` (finite differences). Optimizers and
learning-rate schedules live in :mod:`replearn.optim.optimizers` and :mod:`replearn.optim.schedules`.
"""

# registry name -> (module in this package, class)
REGISTRY: dict[str, tuple[str, str]] = {
    "mlp": ("mlp", "MLP"),
    "cnn": ("cnn", "CNN"),
}
