"""Model-judged steps (extract, vet, ground, reconcile, plan, rewrite, audit, block) behind one protocol."""
