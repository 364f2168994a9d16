"""Course-convention APIs: the texts' own function signatures, backed by replearn's algorithms.

* :mod:`replearn.courses.epfl` -- the six functions of EPFL CS-433's project 1 (``implementations.py``):
  ``mean_squared_error_gd``, ``mean_squared_error_sgd``, ``least_squares``, ``ridge_regression``,
  ``logistic_regression``, ``reg_logistic_regression``, with the course's argument order ``(y, tx, ...)``, return
  value ``(w, loss)`` and conventions (MSE = 1/(2N) sum e^2, ridge with lambda' = 2 N lambda).
"""
