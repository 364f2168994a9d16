"""scikit-learn estimators as replearn plugin models (entry-point group ``replearn.models``)."""

from .adapters import SkLogisticRegression, SkRandomForest, SkSVC

__all__ = ["SkLogisticRegression", "SkRandomForest", "SkSVC"]
