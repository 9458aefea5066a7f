"""Writing files safely: atomic writes and digests (:mod:`.atomic`), output locations checked
before any work (:mod:`.outputs`), and the standard streams' failure modes (:mod:`.stdio`).
"""
