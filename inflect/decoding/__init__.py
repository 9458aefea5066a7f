"""Search over a model or an ensemble, through the
:class:`~inflect.decoding.protocol.Decodable` protocol, one module per job:

- :mod:`inflect.decoding.protocol`: the protocol, the encoded source (:func:`encode`), the
  results (:class:`Hypothesis`, :class:`SearchResult`, :class:`SupportResult`) and
  :class:`Certificate`;
- :mod:`inflect.decoding.greedy`: :func:`greedy`;
- :mod:`inflect.decoding.beam`: :func:`beam_search` with certificates;
- :mod:`inflect.decoding.support`: :func:`enumerate_support` (every string of nonzero
  probability, best-first);
- :mod:`inflect.decoding.forced`: :func:`teacher_forced` (a model run along given strings);
- :mod:`inflect.decoding.ensemble`: :class:`Ensemble`, :class:`MemberBatches`.

The public names are re-exported here (``from inflect.decoding import beam_search``); this
package is also what version 0.1's ``inflect.search`` gives (:mod:`inflect._moved`).
"""

from inflect.decoding.beam import beam_search
from inflect.decoding.ensemble import Ensemble, MemberBatches
from inflect.decoding.forced import ForcedPath, teacher_forced
from inflect.decoding.greedy import greedy
from inflect.decoding.protocol import (
    Certificate,
    Concatenable,
    Decodable,
    Encoded,
    Hypothesis,
    MaxLen,
    SearchResult,
    SupportResult,
    encode,
)
from inflect.decoding.support import enumerate_support
from inflect.defaults import SEARCH_MAX_LEN as DEFAULT_MAX_LEN

__all__ = [
    "DEFAULT_MAX_LEN",
    "Certificate",
    "Concatenable",
    "Decodable",
    "Encoded",
    "Ensemble",
    "ForcedPath",
    "Hypothesis",
    "MaxLen",
    "MemberBatches",
    "SearchResult",
    "SupportResult",
    "beam_search",
    "encode",
    "enumerate_support",
    "greedy",
    "teacher_forced",
]
