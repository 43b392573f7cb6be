"""The picture and what goes with it: the player (QMediaPlayer for playback, our own decoder
for exact paused frames) and its GIL-free calls, the video view with the analysis and the
reviewer's notes drawn over it (overlays, note shapes, the drawing layer), the transport bar
under it, the notice and offer bars above it, and the picture's modes (full screen, a
window of its own)."""
