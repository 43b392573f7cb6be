"""The dock panels beside the picture: Details (what is selected on the timeline, with its
edit controls), Identities (the people found), Notes (the reviewer's notes, with the note
keys that mark a range and open the composer) and Videos (the videos open in the window).
The Library and Summaries panels and the timeline are packages of their own in gui/."""
