"""The relation family: transits, connections and pentas (extensions beyond the contract)."""
