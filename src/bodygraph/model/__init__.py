"""The chart model (:class:`Activation`, :class:`Side`, :class:`Chart` and the enums) and its
JSON objects of the HTTP contract."""
