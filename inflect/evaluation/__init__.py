"""The shared task's metrics (:mod:`.scoring`), sparsity statistics (:mod:`.sparsity`),
ambiguity (:mod:`.ambiguity`) and the evaluation runner (:mod:`.runner`).
"""
