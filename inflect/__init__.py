"""sparse-inflect: morphological inflection with sparse sequence-to-sequence models.

Implements Peters, Niculae & Martins, *Sparse Sequence-to-Sequence Models* (ACL 2019,
arXiv:1905.05702): a character-level BiLSTM encoder and an LSTM decoder whose attention and output
mappings are α-entmax (softmax at α=1, sparsemax at α=2), trained with the entmax Fenchel–Young loss.
"""

__version__ = "0.1.0"
