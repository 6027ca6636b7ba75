/// The one accessibility-focused prompt every model gets.
public enum CaptionPrompt {
    /// The instruction sent with the photo.
    public static let text = """
        Describe this photo for a person who cannot see it, in one or two short sentences. \
        Start with what matters most: the main subject, any people and what they are doing, and the setting. \
        Quote any clearly visible text exactly, in quotation marks. \
        Do not begin with "image of" or "photo of", do not guess who people are, and do not mention the camera or the photo quality.
        """
}
