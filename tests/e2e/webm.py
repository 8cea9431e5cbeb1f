"""Reading a WebM made by the page (MediaRecorder): the times of its frames."""
from __future__ import annotations


def webm_times(data: bytes) -> list[int]:
    """The timestamps (ms, TimecodeScale 1 ms as MediaRecorder writes) of a WebM's frames:
    each Cluster's Timecode (E7) plus its SimpleBlock's (A3) or Block's (A1, in a BlockGroup
    A0) signed 16-bit offset, found by a flat walk into the Segment, Clusters and groups."""
    def vint(i: int, keep_marker: bool) -> tuple[int, int]:
        length = 9 - data[i].bit_length()
        value = int.from_bytes(data[i:i + length], "big")
        if not keep_marker:
            value &= (1 << (7 * length)) - 1
        return value, i + length

    containers = {0x18538067, 0x1F43B675, 0xA0}  # Segment, Cluster, BlockGroup
    i, cluster, times = 0, 0, []
    while i < len(data):
        ident, i = vint(i, keep_marker=True)
        size, i = vint(i, keep_marker=False)
        if ident == 0xE7:
            cluster = int.from_bytes(data[i:i + size], "big")
        elif ident in (0xA3, 0xA1):
            _, j = vint(i, keep_marker=False)  # the track number
            times.append(cluster + int.from_bytes(data[j:j + 2], "big", signed=True))
        if ident not in containers:
            i += size
    return times
