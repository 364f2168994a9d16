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

#: Every export is loaded when first used (:mod:`replearn._lazy`): importing one member (the data generators a
#: family's problems use, say) loads that module only, so neither the other models (SimCLR's linear probe fits a
#: model of the registry) are imported nor do the stages that use one member depend on the others'
#: code (``replearn deps``: an edit to vae.py reruns only the stages that fit a VAE)
LAZY_EXPORTS = {
    "MultiHeadAttention": "attention",
    "MultiHeadCrossAttention": "attention",
    "causal_mask": "attention",
    "scaled_dot_product_attention": "attention",
    "sinusoidal_positional_encoding": "attention",
    "SimCLR": "contrastive",
    "augment_images": "contrastive",
    "linear_probe_accuracy": "contrastive",
    "DIVERGENCES": "fgan",
    "FGAN": "fgan",
    "f_divergence": "fgan",
    "optimal_critic": "fgan",
    "variational_bound": "fgan",
    "RealNVP": "flow",
    "GAN": "gan",
    "BatchNorm": "layers",
    "ELU": "layers",
    "Embedding": "layers",
    "LayerNorm": "layers",
    "Linear": "layers",
    "Module": "layers",
    "Sequential": "layers",
    "mlp": "layers",
    "binary_cross_entropy_with_logits": "losses",
    "cross_entropy": "losses",
    "gaussian_kl": "losses",
    "gaussian_log_likelihood": "losses",
    "nt_xent": "losses",
    "NGramLM": "ngram",
    "CharVocabulary": "sequences",
    "make_copy_task": "sequences",
    "sequence_accuracy": "sequences",
    "strided_windows": "sequences",
    "gaussian_ring_log_density": "toy_data",
    "make_gaussian_ring": "toy_data",
    "mode_coverage": "toy_data",
    "ring_centers": "toy_data",
    "CausalTransformer": "transformer",
    "EncoderDecoderTransformer": "transformer",
    "Seq2SeqTransformer": "transformer",
    "TransformerLM": "transformer",
    "VAE": "vae",
}
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
