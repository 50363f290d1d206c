"""The astrology family: the hologenetic profile, zodiac positions and angles, the mandala
wheel (extensions beyond the contract)."""
