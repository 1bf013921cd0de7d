"""The methods USplat4D is compared with: one module per baseline."""
