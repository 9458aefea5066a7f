"""The network: its configuration, vocabularies and batching, the BiLSTM encoder and the attentional
LSTM decoder (Peters, Niculae & Martins 2019, section 3), checkpoints in safetensors, output-length
limits and torch's thread count. Builds on :mod:`inflect.sparse` and :mod:`inflect.text`.
"""
