/// The user's choice of where captions are made (the seed's `ai_mode`).
public enum CaptionMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Only on this device: pixels never leave it, not even as a fallback.
    case onDevice = "on-device"
    /// Google Gemini, falling back to the on-device models.
    case gemini
    /// OpenAI's GPT (or another OpenAI-compatible cloud server), falling back to the on-device models.
    case gpt

    /// Parses a mode, accepting the seed's `gpt-5.2` spelling.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "on-device", "ondevice", "local": self = .onDevice
        case "gemini": self = .gemini
        case "gpt", "gpt-5.2", "openai": self = .gpt
        default: return nil
        }
    }

    /// Whether the user allowed pixels to leave the device.
    public var isCloud: Bool { self != .onDevice }
}
