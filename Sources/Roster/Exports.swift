// Roster's API uses RosterUpdates' change events and index paths; importing Roster is enough.
@_exported import RosterUpdates
@_exported import struct Foundation.IndexPath
