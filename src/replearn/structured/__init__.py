"""Structured prediction and imitation learning (CIML ch. 17-18).

* :func:`viterbi` (Alg. 42, with the loss-augmented variant of eq. 17.53), :func:`ilp_argmax` (the same
  argmax as CIML §17.6's integer linear program), :func:`brute_force_argmax` (the K^L reference),
  :func:`sequence_score`, :func:`hamming_loss`, :func:`structured_hinge_loss`;
* :func:`joint_features` — phi(x, y): unary features (outer) label plus label-transition indicators;
* :class:`StructuredPerceptron` (Alg. 40) and :class:`StructuredSVM` (Alg. 41), estimator-like with
  ``fit(X_seqs, Y_seqs)`` / ``predict(X_seqs)`` on lists of (L_i, D) arrays;
* :func:`make_hmm_sequences` — seeded synthetic HMM data, :func:`hmm_viterbi` its Bayes decoder;
* sums over sequences (:mod:`.forward_backward`): :func:`forward` (log Z), :func:`backward`,
  :func:`sequence_marginals` (forward-backward node and edge marginals), :func:`brute_force_marginals`, and for
  an HMM :func:`hmm_log_likelihood` (log p(x)) and :func:`hmm_posteriors` (p(y_l | x), p(y_{l-1}, y_l | x));
* imitation learning: :func:`supervised_imitation_train` (Alg. 43), :func:`supervised_imitation_test`
  (Alg. 44), :class:`DAgger` (Alg. 45), :func:`depth_limited_dfs` (Alg. 46), and the tasks
  :class:`SequenceLabelingTask` (§18.5) and :class:`GridNavigation` (§18.4).
"""

from .._lazy import lazy_exports
from .data import (
    HMMSequences,
    hmm_viterbi,
    make_hmm_params,
    make_hmm_sequences,
    sample_hmm,
)
from .features import check_sequences, joint_features, split_weights
from .forward_backward import (
    SequenceMarginals,
    backward,
    brute_force_marginals,
    forward,
    hmm_log_likelihood,
    hmm_posteriors,
    hmm_scores,
    sequence_marginals,
)
from .ilp import ILPArgmax, ilp_argmax
from .perceptron import StructuredPerceptron
from .ssvm import StructuredSVM
from .viterbi import (
    brute_force_argmax,
    hamming_loss,
    loss_augmented_viterbi,
    sequence_score,
    structured_hinge_loss,
    viterbi,
)

#: imitation learning composes classifiers of the model registry: loaded when one of these names is first used
#: (:mod:`replearn._lazy`), so sampling or decoding sequences does not import every model
LAZY_EXPORTS = {
    "DAgger": "imitation",
    "Trajectory": "imitation",
    "depth_limited_dfs": "imitation",
    "evaluate_policy": "imitation",
    "rollout": "imitation",
    "supervised_imitation_test": "imitation",
    "supervised_imitation_train": "imitation",
    "GridNavigation": "imitation_tasks",
    "SequenceLabelingTask": "imitation_tasks",
    "hamming_best": "imitation_tasks",
    "sequence_expert": "imitation_tasks",
}
__getattr__, __dir__ = lazy_exports(__name__, LAZY_EXPORTS, globals())


__all__ = [
    "DAgger",
    "GridNavigation",
    "HMMSequences",
    "ILPArgmax",
    "SequenceLabelingTask",
    "SequenceMarginals",
    "StructuredPerceptron",
    "StructuredSVM",
    "Trajectory",
    "backward",
    "brute_force_argmax",
    "brute_force_marginals",
    "check_sequences",
    "depth_limited_dfs",
    "evaluate_policy",
    "forward",
    "hamming_best",
    "hamming_loss",
    "hmm_log_likelihood",
    "hmm_posteriors",
    "hmm_scores",
    "hmm_viterbi",
    "ilp_argmax",
    "joint_features",
    "loss_augmented_viterbi",
    "make_hmm_params",
    "make_hmm_sequences",
    "rollout",
    "sample_hmm",
    "sequence_expert",
    "sequence_marginals",
    "sequence_score",
    "split_weights",
    "structured_hinge_loss",
    "supervised_imitation_test",
    "supervised_imitation_train",
    "viterbi",
]
