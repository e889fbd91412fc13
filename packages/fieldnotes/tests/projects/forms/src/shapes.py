# --8<-- [start:square]
class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        # --8<-- [start:area]
        area = self.side**2
        print(f"a square of side {self.side} covers {area}")
        # --8<-- [end:area]
        return area
# --8<-- [end:square]


# --8<-- [start:make]
square = Square(3)
# --8<-- [end:make]

# --8<-- [start:use]
print(square.area())
# --8<-- [end:use]
