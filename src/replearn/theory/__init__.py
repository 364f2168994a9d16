"""Learning theory you can run (CS229 notes §8.3, CIML ch. 12, EPFL test-set bounds).

* bounds: :func:`hoeffding_bound`, :func:`hoeffding_sample_size`, :func:`uniform_convergence_gap`,
  :func:`erm_generalization_bound`, :func:`occam_sample_size`, :func:`occam_error_bound`,
  :func:`test_set_bound`, class sizes :func:`conjunction_class_size` / :func:`complete_tree_class_size`;
* :func:`hoeffding_simulation` — coin flips against the Hoeffding bound;
* :class:`ConjunctionLearner` — CIML Alg. 31 ("Throw Out Bad Terms");
* VC dimension by brute-force shattering: :func:`vc_dimension`, :func:`vc_search`, :func:`shatters`,
  :func:`realizable` for "thresholds", "intervals", "halfplanes", "rectangles";
* Vapnik's bound for a class of VC dimension D (CS229 §8.3.3): :func:`vc_generalization_bound`,
  :func:`vc_erm_bound`, :func:`vc_sample_size`, :func:`log_growth_function_bound` (Sauer's lemma);
* the expressiveness of one hidden layer (EPFL notes): :func:`rectangle_network`, :func:`riemann_network`
  (Riemann sums of sigmoid rectangles), :func:`barron_bound` and :func:`greedy_sigmoid_fit` (Barron's rate).
"""

from .bounds import (
    HoeffdingSimulation,
    complete_tree_class_size,
    conjunction_class_size,
    deviates,
    erm_generalization_bound,
    hoeffding_bound,
    hoeffding_sample_size,
    hoeffding_simulation,
    occam_error_bound,
    occam_sample_size,
    test_set_bound,
    uniform_convergence_gap,
)
from .expressiveness import (
    SigmoidNetwork,
    barron_bound,
    greedy_sigmoid_fit,
    l1_error,
    rectangle_network,
    riemann_network,
    sigmoid_step,
)
from .pac import ConjunctionLearner
from .vc import (
    HYPOTHESIS_CLASSES,
    VCSearchResult,
    candidate_point_sets,
    realizable,
    shatters,
    vc_dimension,
    vc_search,
)
from .vc_bound import log_growth_function_bound, vc_erm_bound, vc_generalization_bound, vc_sample_size

__all__ = [
    "HYPOTHESIS_CLASSES",
    "ConjunctionLearner",
    "HoeffdingSimulation",
    "SigmoidNetwork",
    "barron_bound",
    "greedy_sigmoid_fit",
    "l1_error",
    "rectangle_network",
    "riemann_network",
    "sigmoid_step",
    "VCSearchResult",
    "candidate_point_sets",
    "complete_tree_class_size",
    "conjunction_class_size",
    "deviates",
    "erm_generalization_bound",
    "hoeffding_bound",
    "hoeffding_sample_size",
    "hoeffding_simulation",
    "log_growth_function_bound",
    "occam_error_bound",
    "occam_sample_size",
    "realizable",
    "shatters",
    "test_set_bound",
    "uniform_convergence_gap",
    "vc_dimension",
    "vc_erm_bound",
    "vc_generalization_bound",
    "vc_sample_size",
    "vc_search",
]
