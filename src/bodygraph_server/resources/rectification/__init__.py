"""The stability and rectification family: how stable a chart is, and which birth times
give what a person knows of their chart (extensions beyond the contract)."""
