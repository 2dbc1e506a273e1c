// C flags arguments, read by the header's names: no bare bit values in the C ABI.

/// Whether the header's flag `constant` (a MAPPING_* enum constant) is set in `flags`.
func isSet<Constant: RawRepresentable>(_ constant: Constant, in flags: CUnsignedInt) -> Bool
where Constant.RawValue: FixedWidthInteger {
    flags & CUnsignedInt(truncatingIfNeeded: constant.rawValue) != 0
}
