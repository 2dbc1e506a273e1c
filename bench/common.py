"""What the benchmark scripts share: jansson's bare parse (the baseline every ratio is to)."""
import ctypes
import ctypes.util

jansson = ctypes.CDLL(ctypes.util.find_library("jansson") or "libjansson.so.4")
jansson.json_loadb.restype = ctypes.c_void_p
jansson.json_loadb.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p]
jansson.json_delete.argtypes = [ctypes.c_void_p]
ERROR_SIZE = 256 + 16 + 80  # json_error_t is smaller than this


def jansson_parse(data):
    """json_loadb + json_delete through ctypes: one call each, so the parse runs at C speed."""
    error = ctypes.create_string_buffer(ERROR_SIZE)
    tree = jansson.json_loadb(data, len(data), 0, error)
    if not tree:
        raise RuntimeError("jansson could not parse the payload")
    jansson.json_delete(tree)
