"""UniMorph 4 layered features (:mod:`inflect.text.unimorph4`): a layer is a name and an
order-free set of parts; ``,`` and ``;`` separate parts inside a layer (Batsuren et al., 2022,
§3.2; the 2023 shared task's files write both); unbalanced brackets are an error naming the text.
"""

from __future__ import annotations

import pytest

from inflect.text.unimorph4 import (
    Layer,
    LayerError,
    has_layers,
    is_layer,
    parse_bundle,
    parse_feature,
)


def test_a_layer_is_a_name_and_a_set_of_parts():
    layer = parse_feature("PSS(PL,1)")
    assert layer == Layer("PSS", frozenset({"1", "PL"}))
    assert layer == parse_feature("PSS(1,PL)")
    assert layer.text == "PSS(PL,1)" and str(layer) == "PSS(1,PL)"
    assert parse_feature("DAT(PL;LGSPEC2)") == parse_feature("DAT(LGSPEC2,PL)")
    assert parse_feature("NOM(3,SG)") != parse_feature("NOM(3,PL)")


def test_a_bundle_splits_on_semicolons_outside_layers():
    assert parse_bundle("V;IND;PRS;NOM(3,SG)") == (
        "V",
        "IND",
        "PRS",
        Layer("NOM", frozenset({"3", "SG"})),
    )
    assert parse_bundle("N;IN+ESS(SG)") == ("N", Layer("IN+ESS", frozenset({"SG"})))
    nested = parse_feature("ACC(PL,PSS(1,SG))")
    assert nested.features == ("PL",)
    assert nested.layers == (Layer("PSS", frozenset({"1", "SG"})),)
    assert nested.atoms() == ("ACC", "PL", "PSS", "1", "SG")


def test_the_2018_bracketed_features_are_not_layers():
    assert parse_feature("(non)NOM") == "(non)NOM"
    assert not is_layer("(non)NOM") and is_layer("NOM(3,SG)")
    assert not has_layers("N;(non)NOM;SG") and has_layers("N;DAT(PL)")
    assert parse_feature(" N ") == "N"


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("N;DAT(PL", "'(' at character 6 is never closed"),
        ("N;DATPL)", "')' at character 8 closes no bracket"),
        ("NOM(3,SG))", "closes no bracket"),
        ("DAT()", "empty layer"),
        ("NOM(3,,SG)", "empty part"),
        ("DAT(PL)X", "text after the layer's closing bracket"),
        ("N;;DAT(PL)", "empty feature"),
    ],
)
def test_a_malformed_layer_is_an_error_naming_the_text(text, what):
    with pytest.raises(LayerError) as caught:
        parse_bundle(text)
    assert what in str(caught.value)
    assert repr(caught.value.text) in str(caught.value)
