"""Deep generative and sequence models on :mod:`replearn.autodiff`.

* :mod:`.layers`: ``Linear``, ``Embedding``, ``BatchNorm``, ``LayerNorm``, ``ELU`` and the other
  activations, ``Sequential``, :func:`mlp`;
* :mod:`.losses`: cross-entropy, Bernoulli and Gaussian likelihoods, Gaussian KL, NT-Xent;
* :mod:`.attention` and :mod:`.transformer`: scaled dot-product and multi-head attention, positional
  encodings, :class:`TransformerLM`, and the encoder-decoder :class:`Seq2SeqTransformer` with
  :class:`MultiHeadCrossAttention`; :mod:`.sequences`: copy/reverse tasks and character text;
  :class:`NGramLM`: the smoothed n-gram baseline;
* :class:`VAE`, :class:`GAN`, :class:`RealNVP`, :class:`SimCLR`;
* :mod:`.fgan`: f-divergence variational bounds (KL, reverse KL, JS, Pearson chi^2) and :class:`FGAN`.
"""

from .._lazy import lazy_exports
from .attention import (
    MultiHeadAttention,
    MultiHeadCrossAttention,
    causal_mask,
    scaled_dot_product_attention,
    sinusoidal_positional_encoding,
)
from .fgan import DIVERGENCES, FGAN, f_divergence, optimal_critic, variational_bound
from .flow import RealNVP
from .gan import GAN
from .layers import ELU, BatchNorm, Embedding, LayerNorm, Linear, Module, Sequential, mlp
from .losses import binary_cross_entropy_with_logits, cross_entropy, gaussian_kl, gaussian_log_likelihood, nt_xent
from .ngram import NGramLM
from .sequences import CharVocabulary, make_copy_task, sequence_accuracy, strided_windows
from .toy_data import gaussian_ring_log_density, make_gaussian_ring, mode_coverage, ring_centers
from .transformer import CausalTransformer, EncoderDecoderTransformer, Seq2SeqTransformer, TransformerLM
from .vae import VAE

#: SimCLR's linear probe fits a model of the registry: loaded when one of these names is first used
#: (:mod:`replearn._lazy`), so the data generators and the other models do not import every model
LAZY_EXPORTS = {"SimCLR": "contrastive", "augment_images": "contrastive", "linear_probe_accuracy": "contrastive"}
__getattr__, __dir__ = lazy_exports(__name__, LAZY_EXPORTS, globals())


__all__ = [
    "Module",
    "Linear",
    "Embedding",
    "BatchNorm",
    "LayerNorm",
    "ELU",
    "Sequential",
    "mlp",
    "cross_entropy",
    "binary_cross_entropy_with_logits",
    "gaussian_kl",
    "gaussian_log_likelihood",
    "nt_xent",
    "scaled_dot_product_attention",
    "causal_mask",
    "sinusoidal_positional_encoding",
    "MultiHeadAttention",
    "MultiHeadCrossAttention",
    "CausalTransformer",
    "TransformerLM",
    "EncoderDecoderTransformer",
    "Seq2SeqTransformer",
    "NGramLM",
    "make_copy_task",
    "sequence_accuracy",
    "CharVocabulary",
    "strided_windows",
    "VAE",
    "GAN",
    "FGAN",
    "DIVERGENCES",
    "f_divergence",
    "optimal_critic",
    "variational_bound",
    "RealNVP",
    "SimCLR",
    "augment_images",
    "linear_probe_accuracy",
    "make_gaussian_ring",
    "gaussian_ring_log_density",
    "mode_coverage",
    "ring_centers",
]
