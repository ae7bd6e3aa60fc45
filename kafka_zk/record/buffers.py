"""The byte buffers the codecs read: bytes, a bytearray being patched in place, or a memoryview slice of either."""

ReadableBuffer = bytes | bytearray | memoryview
