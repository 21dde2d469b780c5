"""Themes: Textual's built-ins plus PaperPilot's high-contrast theme (for projectors and low vision)."""

from __future__ import annotations

from textual.theme import Theme

HIGH_CONTRAST = Theme(
    name="paperpilot-high-contrast",
    primary="#FFFFFF",
    secondary="#FFFF00",
    accent="#FFFF00",
    foreground="#FFFFFF",
    background="#000000",
    surface="#000000",
    panel="#1A1A1A",
    boost="#262626",
    success="#00FF00",
    warning="#FFB000",
    error="#FF4040",
    dark=True,
    variables={
        "foreground-muted": "#D0D0D0",
        "text-muted": "#D0D0D0",
        "border": "#FFFFFF",
        "footer-key-foreground": "#FFFF00",
        "block-cursor-background": "#FFFF00",
        "block-cursor-foreground": "#000000",
        "input-selection-background": "#FFFF00 40%",
    },
)

CYCLE = ("textual-dark", "textual-light", "paperpilot-high-contrast", "nord", "gruvbox")
