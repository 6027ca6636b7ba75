import ImageKit
@main
struct Bench { static func main() {} }
