"""Search over a model or an ensemble: greedy and beam search with certificates, support
enumeration and forced decoding, through the :class:`~inflect.decoding.search.Decodable` protocol.
"""
