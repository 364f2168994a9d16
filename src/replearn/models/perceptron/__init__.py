"""Perceptrons (CIML ch. 4 and §17.1; CS229 notes §2.2): vanilla, averaged, voted and multiclass."""

# registry name -> (module in this package, class)
REGISTRY = {
    "perceptron": ("perceptron", "Perceptron"),
    "averaged_perceptron": ("perceptron", "AveragedPerceptron"),
    "voted_perceptron": ("perceptron", "VotedPerceptron"),
    "multiclass_perceptron": ("perceptron", "MulticlassPerceptron"),
}
