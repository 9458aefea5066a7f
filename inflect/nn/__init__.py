"""The network: its configuration, vocabularies and batching, the encoders (the paper's BiLSTM, a
transformer; chosen by name) and the attentional LSTM decoder (Peters, Niculae & Martins 2019,
section 3), checkpoints in safetensors, output-length limits and torch's thread count. Builds on
:mod:`inflect.sparse` and :mod:`inflect.text`.
"""
