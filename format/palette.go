package format

import (
	"fmt"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
	"github.com/arborbt/arbor/format/btcpp"
	"github.com/arborbt/arbor/format/internal/conv"
)

// ReadPalette reads the node types a palette file declares: a BT.CPP XML
// file's TreeNodesModel (btcpp.ReadModels; what btcpp.Models writes for
// Groot2) or a Behavior3 node export or file with custom_nodes
// (b3.ReadNodes; what b3.NodeExport writes for the Behavior3 editor). The
// format is told by the content, as DetectData tells it. Native files
// declare no node types: reading one is an error.
func ReadPalette(path string) ([]arbor.TypeInfo, error) {
	data, err := conv.ReadFile(path, conv.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("read palette %s: %w", path, err)
	}
	var infos []arbor.TypeInfo
	switch DetectData(data) {
	case BTCPP:
		infos, err = btcpp.ReadModels(data)
	case B3:
		infos, err = b3.ReadNodes(data)
	default:
		err = fmt.Errorf("not a palette: want a BT.CPP XML file with a <TreeNodesModel> or a Behavior3 node export (btcpp.Models and b3.NodeExport write them)")
	}
	if err != nil {
		return nil, fmt.Errorf("read palette %s: %w", path, err)
	}
	return infos, nil
}
